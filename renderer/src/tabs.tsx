import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

/**
 * WAI-ARIA tabs: one tab stop for the tab list, arrow keys (and Home/End) move between tabs and select them, Tab goes
 * on into the open panel.
 */
export function Tabs<T extends string>({
  id,
  label,
  tabs,
  selected,
  onSelect,
  children,
}: {
  id: string;
  label: string;
  tabs: ReadonlyArray<{ id: T; label: string }>;
  selected: T;
  onSelect: (tab: T) => void;
  children: ComponentChildren;
}) {
  const list = useRef<HTMLDivElement>(null);
  const move = (event: KeyboardEvent) => {
    const index = tabs.findIndex((t) => t.id === selected);
    const next =
      event.key === 'ArrowRight' ? (index + 1) % tabs.length : event.key === 'ArrowLeft' ? (index - 1 + tabs.length) % tabs.length : event.key === 'Home' ? 0 : event.key === 'End' ? tabs.length - 1 : -1;
    if (next < 0) return;
    event.preventDefault();
    onSelect(tabs[next]!.id);
    queueMicrotask(() => list.current?.querySelector<HTMLElement>(`#${id}-tab-${tabs[next]!.id}`)?.focus());
  };
  return (
    <>
      <div role="tablist" aria-label={label} class="tablist" ref={list} onKeyDown={move}>
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${id}-tab-${t.id}`}
            aria-selected={t.id === selected ? 'true' : 'false'}
            aria-controls={`${id}-panel`}
            tabIndex={t.id === selected ? 0 : -1}
            onClick={() => onSelect(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${selected}`} class="tabpanel">
        {children}
      </div>
    </>
  );
}
