// Where the replay's calls go: a gateway that is already running (--target), none at all (--shadow-pairs),
// or the gateway started in this process, which the gateway port starts (gateway-port.ts, startInProcess).
import { redactUrl } from '../../shared/redact.js';
import { isLoopbackUrl } from './safety.js';

/** Where the calls go. */
export interface ReplayTarget {
  url: string;
  /** Where `/api/v1/...` can be read with the replay's key: v1 itself, or a running gateway's passthrough. */
  v1Url: string;
  /** What the report calls it. */
  label: string;
  sandboxOrLoopback: boolean;
  /** Key used when none is given (the sandbox's demo key). */
  defaultKey: string | undefined;
  /** Where the HTML report's copy-as-curl lines send a call (credentials removed); undefined: the recorded URL. */
  curlBase: string | undefined;
  close(): Promise<void>;
}

/** The in-process gateway is gone once the report is read: its curl lines go where `legacy-gateway serve`
 * (`npm start`) listens by default. */
export const IN_PROCESS_CURL_BASE = 'http://127.0.0.1:8080';

/** A gateway that is already running (--target): nothing to start or stop. */
export function runningGatewayTarget(url: string): ReplayTarget {
  return {
    url,
    v1Url: url,
    label: redactUrl(url),
    sandboxOrLoopback: isLoopbackUrl(url),
    defaultKey: undefined,
    curlBase: redactUrl(url),
    close: async () => undefined,
  };
}

/**
 * --shadow-pairs: no target at all. Each line answers from itself (shadow-pairs.ts); the URL is never
 * used (the runner opens no connection) and names no real host.
 */
export function shadowPairsTarget(): ReplayTarget {
  return {
    url: 'http://shadow-pairs.invalid',
    v1Url: 'http://shadow-pairs.invalid',
    label: 'the candidate replies recorded in the file (--shadow-pairs)',
    sandboxOrLoopback: false,
    defaultKey: undefined,
    // Nothing was sent: the line is the recorded call, as served.
    curlBase: undefined,
    close: async () => undefined,
  };
}
