/**
 * Imported first by root.tsx, for its side effect: the first page's requests go out (unless the boot
 * module already sent them) as the app's chunk starts to run, before React and the views are evaluated.
 */
import { startFirstRequests } from './first-requests.ts';

startFirstRequests();
