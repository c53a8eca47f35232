import cliProgress from 'cli-progress';
import type { Progress, ProgressStep } from '../model/progress.js';
import { SILENT_PROGRESS } from '../model/progress.js';

/**
 * Progress on stderr for long steps: a bar when the total is known, a start/done line otherwise.
 * Silent with --quiet or when stderr is not a TTY (CI logs and pipes stay clean). A step that shows
 * figures (fetch: requests, bytes, rate) gets them beside the bar, with the time left.
 */
export function stderrProgress(quiet: boolean): Progress {
  if (quiet || !process.stderr.isTTY) return SILENT_PROGRESS;
  return {
    step(label: string, total?: number): ProgressStep {
      if (total === undefined) {
        process.stderr.write(`… ${label}\n`);
        return { advance: () => {}, done: (summary) => process.stderr.write(`✓ ${label}${summary ? `: ${summary}` : ''}\n`) };
      }
      const plain = `${label} [{bar}] {percentage}% {value}/{total}`;
      const withFigures = `${plain} | {figures} | time left {eta_formatted}`;
      const bar = new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: (options, params, payload: { figures?: string }) =>
            cliProgress.Format.Formatter({ ...options, format: payload.figures ? withFigures : plain }, params, payload),
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0, { figures: '' });
      return {
        advance: (units = 1) => bar.increment(units),
        show: (figures) => bar.update({ figures }),
        done: (summary) => {
          bar.stop();
          if (summary) process.stderr.write(`✓ ${label}: ${summary}\n`);
        },
      };
    },
  };
}
