// Turns zod's issues about one mapping file into (path, reason) pairs a person can act on. Where a value may
// take several shapes (a view entry is a name or an override), a failure is explained by the one shape the
// value's type fits, at its own path, instead of zod's bare "Invalid input". Pure; it never decides validity.
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

export interface FileIssue {
  path: string;
  reason: string;
}

/** An option's issues say "not this type at all" (so the value was meant as another option). */
const wrongType = (issues: readonly Issue[]): boolean =>
  issues.length > 0 && issues.every((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_union'));

function explain(issue: Issue, prefix: readonly PropertyKey[]): FileIssue[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const fitting = issue.errors.filter((option) => !wrongType(option));
    if (fitting.length === 1) return fitting[0]!.flatMap((inner) => explain(inner, path));
  }
  return [{ path: path.map(String).join('.'), reason: issue.message }];
}

export function fileIssues(issues: readonly Issue[]): FileIssue[] {
  return issues.flatMap((issue) => explain(issue, []));
}
