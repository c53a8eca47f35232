import { execa } from 'execa';

/** The pid of a process that has already exited (for tests of what a dead process left behind). */
export async function deadPid(): Promise<number> {
  const child = execa('node', ['-e', '']);
  const pid = child.pid!;
  await child;
  return pid;
}
