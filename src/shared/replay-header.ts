// The header every call `legacy-gateway replay` sends carries, and the gateway's one reading of it: a
// replayed call is served as any other, but neither recorded (RECORD_FILE: replaying a recording through
// the gateway that writes it would grow the file being read) nor counted in GET /usage (its key is the
// replay's and its user agents the recorded ones: no integration made the call). Any caller may send it;
// it changes nothing else. Pure.
/** Request headers as Node gives them (names lower-cased). */
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The header's name, as Node spells incoming header names. */
export const REPLAY_HEADER = 'legacy-gateway-replay';
/** Its one value. */
export const REPLAY_HEADER_VALUE = '1';

/** Whether a request says it is a replayed call. */
export function isReplayedCall(headers: Headers): boolean {
  return headers[REPLAY_HEADER] === REPLAY_HEADER_VALUE;
}
