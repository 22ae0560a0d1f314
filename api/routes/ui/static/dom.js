// What every part of the audit page shares: making elements (HTML and SVG), masking phone numbers, telling times.

/** Phone numbers masked as the API masks them (common/logger.ts maskPhoneNumbers). */
export const mask = (text) =>
  String(text).replace(/\+?\d[\d ()-]{5,}\d/g, (m) => {
    const digits = m.replace(/\D/g, '');
    return digits.length >= 7 ? `${m.startsWith('+') ? '+' : ''}***${digits.slice(-2)}` : m;
  });

export const el = (tag, text, className) => {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
};

const SVG = 'http://www.w3.org/2000/svg';
export const svgEl = (tag, attrs) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, val] of Object.entries(attrs || {})) e.setAttribute(k, String(val));
  return e;
};

export const clock = (at = new Date()) => new Date(at).toLocaleTimeString();

export const ago = (iso) => {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min ago`;
  return `${Math.floor(s / 86400)} d ago`;
};

/** An icon beside words that say the same: hidden from screen readers. */
export const icon = (glyph) => {
  const span = el('span', glyph, 'icon');
  span.setAttribute('aria-hidden', 'true');
  return span;
};

/**
 * Redraws `box` with `parts` (a refresh), the element that had the keyboard's focus keeping it: found again by the
 * first of its data `fields` it has, among the focusable (a step's row of buttons names its step too).
 */
export function replaceKeepingFocus(box, parts, fields = ['action']) {
  const active = document.activeElement && box.contains(document.activeElement) ? document.activeElement : undefined;
  box.replaceChildren(...parts);
  for (const field of fields) {
    const focused = active && active.dataset[field];
    const again = focused && [...box.querySelectorAll(`[data-${field}]`)].find((b) => b.dataset[field] === focused && b.tabIndex >= 0);
    if (again) {
      again.focus();
      return;
    }
  }
}
