import type { ApiError } from '../../../src-shared/result';

export function ErrorNote({ error }: { error: ApiError }) {
  return (
    <div className="error-note" role="alert">
      <strong>{error.code === 'not_found' ? 'Not found' : 'Error'}</strong> {error.message}
    </div>
  );
}
