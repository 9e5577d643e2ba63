// Turns zod's issues about one mapping file into (path, reason) pairs a person can act on: the reason in the
// words of src/shared/issue-text.ts (the file is parsed with its `expectation`), with the value the file
// holds there ("must be one of list, ...; got \"lists\""). Where a value may take several shapes (a view
// entry is a name or an override), a failure is explained by the one shape the value's type fits, at its own
// path, instead of a bare "does not have any of the allowed forms". Pure; it never decides validity.
import type { z } from 'zod';
import { issueReason, valueAt } from '../shared/issue-text.js';

type Issue = z.core.$ZodIssue;

export interface FileIssue {
  path: string;
  reason: string;
}

/** An option's issues say "not this type at all" (so the value was meant as another option). */
const wrongType = (issues: readonly Issue[]): boolean =>
  issues.length > 0 && issues.every((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_union'));

function explain(issue: Issue, prefix: readonly PropertyKey[], data: unknown): FileIssue[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const fitting = issue.errors.filter((option) => !wrongType(option));
    if (fitting.length === 1) return fitting[0]!.flatMap((inner) => explain(inner, path, data));
  }
  // A custom message says what it needs itself; otherwise the file's value is repeated (when it is short text, a number or a boolean).
  const value = issue.code === 'custom' || issue.code === 'unrecognized_keys' ? undefined : valueAt(data, path);
  return [{ path: path.map(String).join('.'), reason: issueReason(issue, value) }];
}

/** `data`: the file's parsed content, for the values named in the reasons. */
export function fileIssues(issues: readonly Issue[], data?: unknown): FileIssue[] {
  return issues.flatMap((issue) => explain(issue, [], data));
}
