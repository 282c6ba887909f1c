// A view's own state kept in the address (range, live, the picked task): replaced through the
// browser's history API, which Next's router observes (usePathname / useSearchParams follow),
// so the change is instant and the page is not rendered again on the server. router.replace
// would fetch the route's server component for every click (the Overview's prefetch and its
// audit list), which on a loaded machine left a click seconds away from the address.
export function replaceUrl(href: string): void {
  window.history.replaceState(null, '', href);
}
