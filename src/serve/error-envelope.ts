import type { ErrorCode } from './api-error.js';
import type { Profile } from './profile.js';

/** `{docs_url}/errors#<code>`; quota_exceeded points at the extra-usage contact page instead. */
function docsUrlFor(docsBase: string, code: ErrorCode): string {
  const base = docsBase.replace(/\/+$/, '');
  return code === 'quota_exceeded' ? `${base}/extra-usage` : `${base}/errors#${code}`;
}

/** Profile A: {error:{code,message,requestId,docsUrl}}; Profile B: {error:{code,message}}. */
export function errorEnvelope(profile: Profile, code: ErrorCode, message: string, requestId: string, docsBase: string): object {
  if (profile === 'B') return { error: { code, message } };
  return { error: { code, message, requestId, docsUrl: docsUrlFor(docsBase, code) } };
}
