import { Fragment } from 'preact';

/** A path that wraps only after a separator, never inside a name (`…/Driv|e`). */
export function PathText({ path, class: className }: { path: string; class?: string }) {
  const parts = path.split(/(?<=[/\\])/);
  return (
    <span class={`path${className ? ` ${className}` : ''}`} title={path}>
      {parts.map((part, i) => (
        <Fragment key={i}>
          <span class="path-part">{part}</span>
          {i < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </span>
  );
}
