import { useEffect, useRef, useState } from 'preact/hooks';
import type { CheckDifferenceKind, CheckProgress, CheckRepair, CheckReport, CheckState } from '../../../main/contract/index.js';
import { call, messageOf, subscribe } from '../api.js';
import { folderName, formatBytes, formatSince } from '../format.js';
import { PathText } from '../path-text.js';

const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

const GROUPS: ReadonlyArray<{ kind: CheckDifferenceKind; title: string }> = [
  { kind: 'different', title: 'Different bytes' },
  { kind: 'only-here', title: 'Only on this computer' },
  { kind: 'only-on-drive', title: 'Only on the drive' },
];

/**
 * Which synced folder's check is open, opened from a button: `open(root, event)` from its click, and the dialog (null
 * when none is open), which gives the focus back to that button when it closes.
 */
export function useChecker(): { open: (root: string, event: Event) => void; dialog: preact.JSX.Element | null } {
  const [checking, setChecking] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const open = (root: string, event: Event) => {
    opener.current = event.currentTarget as HTMLElement;
    setChecking(root);
  };
  const close = () => {
    setChecking(null);
    queueMicrotask(() => opener.current?.focus());
  };
  return { open, dialog: checking ? <CheckFilesDialog root={checking} onClose={close} /> : null };
}

/** What was found, in one line. */
function summaryOf(report: CheckReport): string {
  const what = report.sample !== null ? `${report.checked} of a sample of ${files(report.total)} picked at random` : `${report.checked} of ${files(report.total)}`;
  if (!report.complete) return `Stopped after ${what}. Check again to go on from there.`;
  const found = report.differences.length;
  const result = found === 0 ? 'the same here and on the drive.' : `${found} difference${found === 1 ? '' : 's'}.`;
  return `Checked ${what}, ${formatBytes(report.bytes)} compared: ${result}`;
}

/** What a repair did, in plain words. */
function repairedWords(done: CheckRepair): string {
  const said: string[] = [];
  if (done.keptBoth > 0) {
    said.push(`Both versions of ${files(done.keptBoth)} are kept: the drive’s under the file’s name, this computer’s beside it as a conflicted copy.`);
  }
  if (done.copiedBack > 0) said.push(`${files(done.copiedBack)} on one side only ${done.copiedBack === 1 ? 'was' : 'were'} copied to the other side again.`);
  if (done.inSync === true) said.push('The folder is in sync.');
  else if (done.inSync === false) said.push('The folder is not in sync yet: Status says why.');
  else said.push('Syncing is paused: this is done when you resume it.');
  return said.join(' ');
}

/** The differences of a complete check, grouped by kind, each with its path and what differs. */
function Differences({ report }: { report: CheckReport }) {
  return (
    <div data-testid="check-differences">
      {GROUPS.map(({ kind, title }) => {
        const found = report.differences.filter((d) => d.kind === kind);
        if (found.length === 0) return null;
        return (
          <section key={kind} aria-labelledby={`check-${kind}-title`} data-kind={kind}>
            <h3 id={`check-${kind}-title`}>
              {title} ({found.length})
            </h3>
            <ul class="check-list">
              {found.map((d) => (
                <li key={d.path}>
                  <PathText path={d.path} /> <span class="muted small">{d.detail}</span>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

/** How far the check under way has got: a bar with files, and the bytes compared. */
function Progress({ progress }: { progress: CheckProgress | null }) {
  return (
    <div data-testid="check-progress">
      <progress value={progress?.checked ?? 0} max={Math.max(1, progress?.total ?? 1)} aria-label="Files checked" />
      <p class="progress-figures" data-testid="check-figures">
        {progress ? `${progress.checked} of ${files(progress.total)} checked · ${formatBytes(progress.bytes)} compared` : 'Starting…'}
      </p>
    </div>
  );
}

/** Every file, or a sample of them; and for a stopped check, whether to start over. */
function StartChoice({
  state,
  stopped,
  sample,
  setSample,
  fromStart,
  setFromStart,
  error,
}: {
  state: CheckState | null;
  /** The report below says already where the check stopped. */
  stopped: boolean;
  sample: string | null;
  setSample: (value: string | null) => void;
  fromStart: boolean;
  setFromStart: (value: boolean) => void;
  error: string | null;
}) {
  const unfinished = state?.unfinished ?? null;
  return (
    <>
      {unfinished && unfinished.checked > 0 ? (
        <div class="check-unfinished" data-testid="check-unfinished">
          {stopped ? null : (
            <p>
              A check stopped after {unfinished.checked} of {files(unfinished.total)} (begun {formatSince(unfinished.startedAt)}): checking again the same way goes
              on from there.
            </p>
          )}
          <span class="checkbox">
            <input id="check-from-start" type="checkbox" checked={fromStart} onChange={(e) => setFromStart((e.currentTarget as HTMLInputElement).checked)} />
            <label for="check-from-start">Start over instead</label>
          </span>
        </div>
      ) : null}
      <fieldset class="check-choice">
        <legend>What to check</legend>
        <span class="checkbox">
          <input type="radio" id="check-all" name="check-how" checked={sample === null} onChange={() => setSample(null)} />
          <label for="check-all">Every synced file</label>
        </span>
        <span class="checkbox">
          <input type="radio" id="check-sample" name="check-how" checked={sample !== null} onChange={() => setSample(sample ?? '100')} />
          <label for="check-sample">A sample of files picked at random</label>
        </span>
      </fieldset>
      {sample !== null ? (
        <div class="field check-sample-size">
          <label for="check-sample-size">How many files</label>
          <input
            id="check-sample-size"
            type="number"
            min={1}
            value={sample}
            onInput={(e) => setSample((e.currentTarget as HTMLInputElement).value)}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'check-sample-error' : undefined}
          />
          {error ? (
            <p class="field-error" id="check-sample-error">
              {error}
            </p>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

/** A folder's check as the dialog drives it: its state on the host, the check under way, its report, the repair. */
function useFolderCheck(root: string) {
  const [state, setState] = useState<CheckState | null>(null);
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<CheckProgress | null>(null);
  const [report, setReport] = useState<CheckReport | null>(null);
  const [repaired, setRepaired] = useState('');
  const [repairing, setRepairing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const runningNow = useRef(false);
  const load = () => call('folders:check-state', { root }).then(setState, (e) => setError(messageOf(e)));
  useEffect(() => {
    void call('folders:check-state', { root }).then((s) => {
      setState(s);
      setReport(s.last);
    }, (e) => setError(messageOf(e)));
    return subscribe('check-progress', (p) => {
      if (p.root === root) setProgress(p);
    });
  }, [root]);
  const begin = (on: boolean) => setRunning((runningNow.current = on));
  const start = async (sample: number | undefined, fromStart: boolean) => {
    setError(null);
    setRepaired('');
    setReport(null);
    setProgress(null);
    begin(true);
    try {
      setReport(await call('folders:check', { root, ...(sample !== undefined ? { sample } : {}), ...(fromStart ? { fromStart: true } : {}) }));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      begin(false);
      void load();
    }
  };
  const stop = () => call('folders:check-stop', { root }).catch((e) => setError(messageOf(e)));
  const keepBoth = async (): Promise<boolean> => {
    setRepairing(true);
    setError(null);
    try {
      setRepaired(repairedWords(await call('folders:check-repair', { root })));
      setReport(null);
      void load();
      return true;
    } catch (e) {
      setError(messageOf(e));
      return false;
    } finally {
      setRepairing(false);
    }
  };
  return { state, running, runningNow, progress, report, repaired, repairing, error, start, stop, keepBoth };
}

/**
 * "Check files…" of a synced folder: every synced file (or a sample) downloaded from the drive and compared, byte for
 * byte, with the copy here; the differences grouped by kind, and "Keep both versions" to settle them. Closing the
 * dialog stops a check under way; the next one goes on from where it stopped.
 */
export function CheckFilesDialog({ root, onClose }: { root: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const check = useFolderCheck(root);
  const { state, running, report } = check;
  const [sample, setSample] = useState<string | null>(null);
  const [fromStart, setFromStart] = useState(false);
  const [sampleError, setSampleError] = useState<string | null>(null);
  const startRef = useRef<HTMLButtonElement>(null);
  const stopRef = useRef<HTMLButtonElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const wasRunning = useRef(false);
  useEffect(() => ref.current?.showModal(), []);
  // The button pressed gives way to the other (Start to Stop, and back): the focus goes along with it.
  useEffect(() => {
    if (running) stopRef.current?.focus();
    else if (wasRunning.current) startRef.current?.focus();
    wasRunning.current = running;
  }, [running]);

  const start = () => {
    const size = sample === null ? undefined : Number(sample);
    if (size !== undefined && (!Number.isInteger(size) || size < 1)) return setSampleError('Give a whole number of files, from 1.');
    setSampleError(null);
    setFromStart(false);
    void check.start(size, fromStart);
  };
  // Keep both versions is gone once done: the focus goes to Close.
  const keepBoth = async () => {
    if (await check.keepBoth()) closeRef.current?.focus();
  };
  // Closing stops a check under way: where it got to is kept, and the next check goes on from there.
  const closed = () => {
    if (check.runningNow.current) void check.stop();
    onClose();
  };

  return (
    <dialog ref={ref} class="check-dialog" aria-labelledby="check-title" aria-describedby="check-text" onClose={closed} data-testid="check-dialog">
      <header class="dialog-header">
        <h2 id="check-title">
          Check files of <span class="entry-title">“{folderName(root)}”</span>
        </h2>
        <button type="button" class="close" onClick={() => ref.current?.close()} aria-label="Close">
          ✕
        </button>
      </header>
      <p id="check-text" class="muted small">
        A check downloads every synced file from the drive and compares it, byte for byte, with the copy on this computer. It changes nothing. It may take a
        while for a big folder, and it uses the bandwidth limit set in Settings. Closing this stops it; the next check goes on from there.
      </p>
      <div role="status" aria-live="polite" class="dialog-message" data-testid="check-message">
        {check.repaired}
      </div>
      {check.error ? (
        <div role="alert" class="error-summary" data-testid="check-error">
          {check.error}
        </div>
      ) : null}
      {report && !running ? <Outcome report={report} /> : null}
      {running ? (
        <Progress progress={check.progress} />
      ) : (
        <StartChoice
          state={state}
          stopped={report !== null && !report.complete}
          sample={sample}
          setSample={setSample}
          fromStart={fromStart}
          setFromStart={setFromStart}
          error={sampleError}
        />
      )}
      <div class="actions">
        {running ? (
          <button type="button" ref={stopRef} onClick={() => void check.stop()}>
            Stop
          </button>
        ) : (
          <button type="button" class="primary" ref={startRef} disabled={check.repairing || state === null} onClick={start}>
            Start the check
          </button>
        )}
        {report && report.complete && report.differences.length > 0 && !running ? (
          <button type="button" disabled={check.repairing} onClick={() => void keepBoth()}>
            Keep both versions
          </button>
        ) : null}
        <button type="button" ref={closeRef} onClick={() => ref.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}

/** A check's report: how far it got (and from where it went on), then what differs and how keeping both settles it. */
function Outcome({ report }: { report: CheckReport }) {
  return (
    <section aria-labelledby="check-result-title" class="check-result" data-testid="check-result">
      <h3 id="check-result-title">{report.complete ? 'Result' : 'Stopped'}</h3>
      {report.resumedAt ? (
        <p class="muted small" data-testid="check-resumed">
          This check went on from one stopped after {files(report.resumedAt)}, begun {formatSince(report.startedAt)}.
        </p>
      ) : null}
      <p data-testid="check-summary">{summaryOf(report)}</p>
      {report.complete && report.differences.length > 0 ? (
        <>
          <Differences report={report} />
          <p class="muted small">
            Keep both versions overwrites nothing: where the bytes differ, the drive’s version keeps the file’s name and this computer’s is kept beside it as
            a conflicted copy; a file on one side only is copied to the other side again.
          </p>
        </>
      ) : null}
    </section>
  );
}
