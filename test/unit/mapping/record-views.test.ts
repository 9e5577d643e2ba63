import { describe, expect, it } from 'vitest';
import { recordFileSchema } from '../../../src/mapping/record-schema.js';
import { resolveRecordViews } from '../../../src/mapping/record-views.js';

const fields = [
  { name: 'id' },
  { name: 'first_name' },
  { name: 'last_name' },
  { name: 'email' },
  { name: 'hide costs', from: 'hide_costs' },
  { name: 'minTime', default: '08:00:00' },
  { name: 'staff_id', from: 'id' },
];

const resolve = (views: Record<string, unknown>) => resolveRecordViews(recordFileSchema.parse({ fields, views }));
const names = (views: Record<string, unknown>, view: string) => resolve(views).views.get(view)?.map((f) => f.name);

describe('record views', () => {
  it('`all` is every field in record order', () => {
    expect(names({ detail: 'all' }, 'detail')).toEqual(fields.map((f) => f.name));
  });

  it('a range takes the record fields from its first to its last, both included', () => {
    expect(names({ list: ['id .. email'] }, 'list')).toEqual(['id', 'first_name', 'last_name', 'email']);
    expect(names({ one: ['email .. email'] }, 'one')).toEqual(['email']);
    expect(names({ spaced: ['email .. hide costs', 'id'] }, 'spaced')).toEqual(['email', 'hide costs', 'id']);
  });

  it('names pick fields in the view\'s own order', () => {
    expect(names({ team: ['staff_id', 'last_name', 'first_name'] }, 'team')).toEqual(['staff_id', 'last_name', 'first_name']);
  });

  it('an override changes what is said about a field for that view only', () => {
    const { views, problems } = resolve({
      list: ['id .. email'],
      detail: ['id .. last_name', { name: 'email', guess: 'sent once' }, { name: 'minTime', default: null, format: 'hhmm' }],
    });
    expect(problems).toEqual([]);
    expect(views.get('list')![3]).toEqual({ name: 'email' });
    expect(views.get('detail')!.slice(3)).toEqual([
      { name: 'email', guess: 'sent once' },
      { name: 'minTime', default: null, format: 'hhmm' },
    ]);
  });

  it.each([
    [{ team: ['id', 'nickname'] }, 'views.team.1', 'unknown field "nickname"'],
    [{ list: ['id .. nickname'] }, 'views.list.0', 'unknown field "nickname"'],
    [{ list: ['email .. id'] }, 'views.list.0', 'the range runs backwards: "email" comes after "id" in the record'],
    [{ list: ['id .. email', 'first_name'] }, 'views.list.1', 'field "first_name" is already in this view'],
    [{ detail: [{ name: 'nickname', guess: 'x' }] }, 'views.detail.0.name', 'unknown field "nickname"'],
    [{ detail: [{ name: 'hide costs', derive: { template: '{a}' } }] }, 'views.detail.0', 'a field is either derived or read `from` one v1 field, not both'],
  ])('refuses %j at %s', (views, path, reason) => {
    const out = resolve({ ok: 'all', ...views });
    expect(out.problems).toEqual([{ path, reason }]);
    expect([...out.views.keys()]).toEqual(['ok']);
  });

  it('refuses duplicate record fields before resolving any view', () => {
    const out = resolveRecordViews(recordFileSchema.parse({ fields: [{ name: 'id' }, { name: 'id' }], views: { list: 'all' } }));
    expect(out.problems).toEqual([{ path: 'fields.1.name', reason: 'duplicate field "id"' }]);
  });

  it('refuses a record without views, an empty view, and a field name that looks like a range', () => {
    const issues = (data: unknown) => recordFileSchema.safeParse(data).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ fields, views: {} })).toEqual(['views: a record needs at least one view']);
    expect(issues({ fields, views: { list: [] } })?.[0]).toMatch(/^views\.list/);
    expect(issues({ fields: [{ name: 'a .. b' }], views: { list: 'all' } })).toEqual(['fields.0.name: a field name must not contain ".." (it marks a range in a view)']);
  });
});
