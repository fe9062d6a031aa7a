// Paths without reloads: / is the overview, /hpas/NS/NAME one HPA. The server answers the page
// for every path, so links can be opened in a new tab or reloaded.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

export type Route = { view: "overview" } | { view: "hpa"; namespace: string; name: string };

export function routeOf(path: string): Route {
  const match = /^\/hpas\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (match) {
    return {
      view: "hpa",
      namespace: decodeURIComponent(match[1]!),
      name: decodeURIComponent(match[2]!),
    };
  }
  return { view: "overview" };
}

export function navigate(href: string): void {
  if (href === location.pathname) return;
  history.pushState(null, "", href);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.pathname));
  useEffect(() => {
    const update = () => setRoute(routeOf(location.pathname));
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return route;
}

/** An ordinary link (keyboard, middle-click, copy) that navigates in place on a plain click. */
export function Link({
  href,
  children,
  class: className,
}: {
  href: string;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <a
      href={href}
      class={className}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
