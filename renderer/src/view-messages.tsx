/** A view's last result, read out politely by screen readers, and its failure, announced at once. */
export function ViewMessages({ message, error, testId }: { message: string; error: string | null; testId: string }) {
  return (
    <>
      <p role="status" aria-live="polite" class="inline-message" data-testid={testId}>
        {message}
      </p>
      {error ? (
        <p role="alert" class="error-summary">
          {error}
        </p>
      ) : null}
    </>
  );
}
