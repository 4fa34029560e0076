/**
 * The one CSP of the renderer, whichever host serves it: Electron sets it as a
 * response header on every page it loads, `tb serve` on every HTML response.
 * Only the app's own scripts run and nothing loads from elsewhere; style
 * attributes are allowed (the graph and chart components position with them).
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";
