/**
 * A whole number from the environment variable `name`; undefined when it is unset or empty. Any
 * other value that is not a whole number `accepts` takes is refused, naming the variable, what it
 * must be (`expected`, e.g. "a whole number from 0 to 64") and the value given.
 */
export function wholeNumberFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  expected: string,
  accepts: (value: number) => boolean,
): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || !accepts(value)) throw new Error(`${name} must be ${expected} (got "${raw}")`);
  return value;
}
