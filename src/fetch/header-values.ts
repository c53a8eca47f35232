import { FetchConfigError } from './fetch-errors.js';

/**
 * Header values of a feed or an export name their secrets as `${VARIABLE}`, read from the
 * environment when fetching, so that tokens stay out of source files. A variable that is not set
 * (or empty) is a configuration error that names it: a request with an empty `Authorization` would
 * only fail later, or worse, succeed anonymously.
 */
export function expandHeaders(headers: Readonly<Record<string, string>>, where: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    expanded[name] = value.replace(/\$\{([^}]*)\}/g, (written, variable: string) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
        throw new FetchConfigError(`${where}: header ${name} holds ${written}, which names no environment variable`);
      }
      const set = env[variable];
      if (set === undefined || set === '') {
        throw new FetchConfigError(`${where}: header ${name} needs the environment variable ${variable}, which is not set`);
      }
      if (/[\r\n\0]/.test(set))
        throw new FetchConfigError(`${where}: the environment variable ${variable} (header ${name}) holds a line break`);
      return set;
    });
  }
  return expanded;
}
