import { useLayoutEffect, type RefObject } from "react";

/** The box an element is cut to: its nearest ancestor that clips what overflows, else the window. */
function clippingBox(element: HTMLElement): { left: number; right: number } {
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    const style = getComputedStyle(parent);
    if (style.overflowX !== "visible") {
      const box = parent.getBoundingClientRect();
      return { left: box.left, right: box.right };
    }
  }
  return { left: 0, right: document.documentElement.clientWidth };
}

/**
 * Keep a popover that is anchored by CSS (e.g. to its button's right edge) whole inside the part
 * of the window it is drawn in: narrower when that part is narrow, and moved sideways when it
 * would stick out. Measured when it opens, whenever the window is resized, and whenever it or an
 * ancestor changes size (content that arrives later, a header that wraps).
 */
export function useFitInside(ref: RefObject<HTMLElement | null>, margin = 8): void {
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const fit = () => {
      element.style.translate = "";
      const bounds = clippingBox(element);
      element.style.maxWidth = `${Math.max(0, bounds.right - bounds.left - 2 * margin)}px`;
      const box = element.getBoundingClientRect();
      const shift =
        box.left < bounds.left + margin
          ? bounds.left + margin - box.left
          : box.right > bounds.right - margin
            ? bounds.right - margin - box.right
            : 0;
      if (shift !== 0) element.style.translate = `${shift}px 0`;
    };
    fit();
    window.addEventListener("resize", fit);
    // Its content may change its size after it opened (a list that loads), and what it hangs from
    // may move (a header that gains a title wraps its buttons to a new row): measured again then.
    // fit() is idempotent, so the size change it causes itself settles at once.
    const resized = new ResizeObserver(() => fit());
    for (let node: HTMLElement | null = element; node; node = node.parentElement) resized.observe(node);
    return () => {
      window.removeEventListener("resize", fit);
      resized.disconnect();
    };
  }, [ref, margin]);
}
