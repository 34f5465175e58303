/** A table's header row of column names, in kubectl's capitals. */
export function Columns({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((n) => (
          <th key={n}>{n}</th>
        ))}
      </tr>
    </thead>
  );
}
