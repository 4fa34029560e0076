/**
 * The `tb serve` page is opened as `/?token=TOKEN`. The token is kept in
 * sessionStorage so that in-app URL changes (or a reload after the query
 * string was edited away) keep working for the life of the tab.
 */
const STORAGE_KEY = 'traceback.token';

export function readSessionToken(location: Pick<Location, 'search'>, storage: Storage | null): string | null {
  const fromUrl = new URLSearchParams(location.search).get('token');
  if (fromUrl) {
    try {
      storage?.setItem(STORAGE_KEY, fromUrl);
    } catch {
      // Storage may be disabled; the URL still carries the token.
    }
    return fromUrl;
  }
  try {
    return storage?.getItem(STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}
