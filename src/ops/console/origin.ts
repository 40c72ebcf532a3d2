/**
 * Why a request that changes something (a POST: a reset, a Bull Board retry)
 * is refused for coming from another site, or undefined when it may go on.
 *
 * The console's credentials are a bearer token or basic auth, and a browser
 * attaches basic auth to any request to the console, whichever site made it.
 * Every browser in use sends `Origin` on a POST (Chrome, Safari, Firefox
 * since 70), and no page can forge it, so a POST from another site is told
 * apart by it: its origin's host is not the one the request was sent to.
 * `null` (a sandboxed frame, a redirect across sites) is refused too. A POST
 * without `Origin` is not a browser's (curl with the token), so no browser
 * could have been made to send it: it goes on, to the form token's check.
 *
 * Only hosts are compared, not schemes: behind a proxy that ends TLS the
 * browser says `https://` while the console sees plain HTTP. The proxy must
 * then pass the `Host` header through unchanged.
 */
export function crossOriginRefusal(
  origin: string | undefined,
  requestUrl: string,
): string | undefined {
  if (origin === undefined) return undefined;
  const here = new URL(requestUrl).host;
  let from: string | undefined;
  try {
    from = origin === "null" ? undefined : new URL(origin).host;
  } catch {
    from = undefined;
  }
  if (from !== undefined && from === here) return undefined;
  return `Refused: this request came from another site (Origin: ${origin}), not from the console at ${here}. The console changes things only from its own pages: open the page and press the button again. Behind a proxy, pass the Host header through unchanged.`;
}
