import { parentPort } from 'node:worker_threads';
import { readExtent, LeftoverWriter } from './diff-leftovers.js';
import { LineBatches } from './diff-lines.js';
import { settlePartitions } from './diff-pairing.js';
import { asBuffer, type DiffReply, type DiffRequest, LEFTOVER_FIELDS, sendError } from './diff-thread-messages.js';

/**
 * A diff's worker thread (diff-threads.ts): reads one side of a resource into batches of lines, a
 * few batches ahead of what the diff has taken (its credit); keys and writes the left-over lines
 * the diff hands it, of either side; and settles a share of the partitions.
 */
const port = parentPort!;
const reply = (message: DiffReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

interface Reading {
  batches: LineBatches;
  credit: number;
  pumping: boolean;
  stopped: boolean;
  /** Buffers of batches the diff is done with, to read into again. */
  spare: ArrayBuffer[];
}

const readings = new Map<number, Reading>();
const writers = new Map<number, { writer: LeftoverWriter; failed: boolean }>();

port.on('message', (request: DiffRequest) => {
  switch (request.kind) {
    case 'read': {
      const spare: ArrayBuffer[] = [];
      const allocate = (bytes: number) => {
        const buffer = spare.pop();
        return buffer !== undefined && buffer.byteLength >= bytes ? Buffer.from(buffer, 0, bytes) : Buffer.allocUnsafeSlow(bytes);
      };
      const reading = {
        batches: new LineBatches(request.label, request.parts, allocate, 'blocking'),
        credit: request.credit,
        pumping: false,
        stopped: false,
        spare,
      };
      readings.set(request.task, reading);
      void pump(request.task, reading);
      return;
    }
    case 'credit': {
      const reading = readings.get(request.task);
      if (reading === undefined) return;
      reading.credit += 1;
      void pump(request.task, reading);
      return;
    }
    case 'recycle': {
      const reading = readings.get(request.task);
      if (reading !== undefined && reading.spare.length < MAX_SPARE) reading.spare.push(request.buffer);
      return;
    }
    case 'stop': {
      const reading = readings.get(request.task);
      readings.delete(request.task);
      if (reading !== undefined) {
        reading.stopped = true;
        if (!reading.pumping) void reading.batches.close();
      }
      return;
    }
    case 'open-leftovers':
      writers.set(request.task, { writer: new LeftoverWriter(request.resource, request.partitions, request.sides), failed: false });
      return;
    case 'leftovers': {
      const entry = writers.get(request.task);
      if (entry === undefined || entry.failed) return;
      try {
        const data = asBuffer(request.data);
        const lines = request.lines;
        for (let at = 0; at < lines.length; at += LEFTOVER_FIELDS) {
          const side = lines[at] === 0 ? 'before' : 'after';
          entry.writer.add(side, lines[at + 1]!, data, lines[at + 4]!, lines[at + 5]!, lines[at + 2]!, lines[at + 3]!);
        }
        // The buffers go back: fresh ones for every message would cost a page fault per page.
        reply({ kind: 'added', task: request.task, lines, data: request.data }, [
          lines.buffer as ArrayBuffer,
          request.data.buffer as ArrayBuffer,
        ]);
      } catch (error) {
        // Reported once; what comes after is dropped, since the diff fails anyway.
        entry.failed = true;
        reply({ kind: 'failed', task: request.task, error: sendError(error) });
      }
      return;
    }
    case 'finish-leftovers': {
      const entry = writers.get(request.task);
      if (entry === undefined || entry.failed) return;
      try {
        reply({ kind: 'written', task: request.task, written: entry.writer.finish() });
      } catch (error) {
        reply({ kind: 'failed', task: request.task, error: sendError(error) });
      }
      return;
    }
    case 'dispose-leftovers':
      writers.get(request.task)?.writer.dispose();
      writers.delete(request.task);
      return;
    case 'shutdown': {
      // Before the thread is terminated: its open files are the process's, and would stay open.
      for (const { writer } of writers.values()) writer.dispose();
      writers.clear();
      const open = [...readings.values()];
      readings.clear();
      for (const reading of open) reading.stopped = true;
      void Promise.allSettled(open.map((reading) => reading.batches.close())).then(() => reply({ kind: 'shut', task: request.task }));
      return;
    }
    case 'settle':
      try {
        reply({
          kind: 'settled',
          task: request.task,
          partial: settlePartitions(request.partitions, readExtent, request.limit, request.sides),
        });
      } catch (error) {
        reply({ kind: 'failed', task: request.task, error: sendError(error) });
      }
      return;
  }
});

const MAX_SPARE = 16;

/** Sends batches while there is credit; one pump at a time per reading. */
async function pump(task: number, reading: Reading): Promise<void> {
  if (reading.pumping) return;
  reading.pumping = true;
  try {
    while (reading.credit > 0 && !reading.stopped) {
      const batch = await reading.batches.next();
      if (reading.stopped) break;
      if (batch === null) {
        readings.delete(task);
        reply({ kind: 'end', task });
        return;
      }
      reading.credit -= 1;
      reply({ kind: 'batch', task, batch }, [batch.data.buffer as ArrayBuffer, batch.ends.buffer as ArrayBuffer]);
    }
  } catch (error) {
    readings.delete(task);
    reply({ kind: 'failed', task, error: sendError(error) });
  } finally {
    reading.pumping = false;
    if (reading.stopped) await reading.batches.close();
  }
}
