/**
 * Keyboard-only use of the page: Tab (or Shift+Tab) until the control with the given accessible name has the focus,
 * then Enter or Space — what a person without a mouse does. Fails when the control cannot be reached by Tab.
 */
import type { Page } from 'playwright-core';

const NAME_OF_FOCUS = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return '';
  const labelled = el.getAttribute('aria-labelledby');
  if (el.getAttribute('aria-label')) return el.getAttribute('aria-label');
  if (labelled) return labelled.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
  if (el.id) { const label = document.querySelector('label[for="' + el.id + '"]'); if (label) return label.textContent.trim(); }
  return (el.textContent ?? '').replace(/\\s+/g, ' ').trim();
})()`;

export function keyboard(page: Page, limit = 80) {
  const focusedName = () => page.evaluate(NAME_OF_FOCUS) as Promise<string>;
  /** Tabs to the control named `name` (a string matches exactly, a RegExp anywhere). */
  async function tabTo(name: string | RegExp, backwards = false): Promise<void> {
    const matches = (text: string) => (typeof name === 'string' ? text === name : name.test(text));
    const seen: string[] = [];
    for (let i = 0; i < limit; i++) {
      const now = await focusedName();
      if (matches(now)) return;
      seen.push(now);
      await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    }
    throw new Error(`${String(name)} cannot be reached with Tab; the focus went through: ${[...new Set(seen)].join(' | ')}`);
  }
  return {
    tabTo,
    focusedName,
    /** Tab to a button or link and press Enter. */
    async press(name: string | RegExp, key: 'Enter' | 'Space' = 'Enter') {
      await tabTo(name);
      await page.keyboard.press(key === 'Space' ? ' ' : 'Enter');
    },
    /** Tab to a field and type into it (replacing what it holds). */
    async type(name: string | RegExp, text: string) {
      await tabTo(name);
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.press('Delete');
      if (text) await page.keyboard.type(text);
    },
  };
}
