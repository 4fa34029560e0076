import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectApi } from './api/api-context';
import { App } from './App';
import './styles/theme.css';
import './styles/app.css';

const root = createRoot(document.getElementById('root')!);
const api = connectApi();
if ('error' in api) {
  root.render(
    <div className="fatal" role="alert">
      <h1>Traceback</h1>
      <p>{api.error}</p>
    </div>,
  );
} else {
  root.render(
    <StrictMode>
      <App api={api} />
    </StrictMode>,
  );
}
