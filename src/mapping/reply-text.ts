// The legacy success envelopes (DESIGN: Reply shapes) as JSON text, around records already written as text
// (record-writer.ts): the exact bytes JSON.stringify gives for the same reply as a value. Records are passed
// as one text, separated by commas, as `recordsText` joins them (a team listing's page is a slice of its
// roster's text). Pure.
import { jsonString } from './json-text.js';

/** Records written as text, as the inside of a JSON array. */
export const recordsText = (records: readonly string[]): string => records.join(',');

/** `,"timezone":"..."` when the reply carries one (sessions), else nothing. */
const timezoneMember = (timezone: string | undefined): string =>
  timezone === undefined ? '' : `,"timezone":${jsonString(timezone)}`;

/** `{"status":"success","total":"<n>",["timezone":...,]"response":[<records>]}` */
export function listReplyText(total: number, records: string, timezone: string | undefined): string {
  return `{"status":"success","total":${jsonString(String(total))}${timezoneMember(timezone)},"response":[${records}]}`;
}

/** `{"status":"success",["timezone":...,]"response":<record>}`: one record's text. */
export function detailReplyText(record: string, timezone: string | undefined): string {
  return `{"status":"success"${timezoneMember(timezone)},"response":${record}}`;
}

/** `{"status":"success","response":[<records>]}`: every record of an operator file. */
export const allRecordsReplyText = (records: string): string => `{"status":"success","response":[${records}]}`;
