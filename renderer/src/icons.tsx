/** Small inline icons (no emoji font is needed, and the CSP allows no remote images). Decorative: words say it too. */
const PATHS = {
  folder: 'M1 3.5A1.5 1.5 0 0 1 2.5 2h3.6l1.6 1.6h5.8A1.5 1.5 0 0 1 15 5.1v7.4a1.5 1.5 0 0 1-1.5 1.5h-11A1.5 1.5 0 0 1 1 12.5z',
  file: 'M3 1.5A1.5 1.5 0 0 1 4.5 0h5L14 4.5v10a1.5 1.5 0 0 1-1.5 1.5h-8A1.5 1.5 0 0 1 3 14.5zM9.5 1v3.5H13',
  star: 'M8 1.2l2.1 4.3 4.7.7-3.4 3.3.8 4.7L8 12l-4.2 2.2.8-4.7L1.2 6.2l4.7-.7z',
  people: 'M5.5 7.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5zm5.5 0a2 2 0 1 0 0-4 2 2 0 0 0 0 4zM1 13.5C1 11 3 9.5 5.5 9.5S10 11 10 13.5V14H1zm10-.5v1h4v-.6c0-1.9-1.4-3.2-3.4-3.4.9.7 1.4 1.8 1.4 3z',
  link: 'M6.6 9.4a3 3 0 0 0 4.2 0l2.5-2.5a3 3 0 0 0-4.2-4.2L8 3.8l1 1 1.1-1.1a1.6 1.6 0 0 1 2.2 2.2L9.8 8.4a1.6 1.6 0 0 1-2.2 0zm2.8-2.8a3 3 0 0 0-4.2 0L2.7 9.1a3 3 0 0 0 4.2 4.2L8 12.2l-1-1-1.1 1.1a1.6 1.6 0 0 1-2.2-2.2l2.5-2.5a1.6 1.6 0 0 1 2.2 0z',
  check: 'M6.2 11.6L2.6 8l1.1-1.1 2.5 2.5 6.1-6.1L13.4 4.4z',
  warn: 'M8 1l7 13H1zm-.8 4.5v4h1.6v-4zm0 5.3v1.6h1.6v-1.6z',
  both: 'M4 2h5l3 3v9H4zm1 1v10h6V5.5H8.5V3zM2 4h1v11h8v1H2z',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, class: className }: { name: IconName; class?: string }) {
  return (
    <svg class={`icon icon-${name}${className ? ` ${className}` : ''}`} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  );
}
