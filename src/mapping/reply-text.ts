// The legacy success envelopes (a page of a list, one record, every record of an operator file) as JSON
// text, around records the compiled mapping built (record-writer.ts): each reply is one JSON.stringify of
// the envelope, its members in the legacy order, so the text is exactly what JSON.stringify gives for the
// reply as a value. Pure.
import type { LegacyRecord } from './legacy-record.js';

/** `{"status":"success","total":"<n>",["timezone":...,]"response":[<records>]}` */
export function listReplyText(total: number, records: readonly LegacyRecord[], timezone: string | undefined): string {
  return JSON.stringify(
    timezone === undefined
      ? { status: 'success', total: String(total), response: records }
      : { status: 'success', total: String(total), timezone, response: records },
  );
}

/** `{"status":"success",["timezone":...,]"response":<record>}` */
export function detailReplyText(record: LegacyRecord, timezone: string | undefined): string {
  return JSON.stringify(timezone === undefined ? { status: 'success', response: record } : { status: 'success', timezone, response: record });
}

/** `{"status":"success","response":[<records>]}`: every record of an operator file. */
export const allRecordsReplyText = (records: readonly LegacyRecord[]): string => JSON.stringify({ status: 'success', response: records });
