/**
 * Starts the app, loaded by the boot module (main.tsx) once the token is read: the first page's requests
 * (first-requests-now.ts, before anything else of the chunk runs), the query client seeded with them, and
 * the React root.
 */
import './api/first-requests-now.ts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import './styles.css';
import { configureQueryClient, prefetchFirstPage } from './api/queries.ts';

const queryClient = new QueryClient({
  defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } },
});
configureQueryClient(queryClient);
prefetchFirstPage(queryClient);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
