import { describe, expect, it } from 'vitest';
import { sortRecords } from '../../../src/mapping/record-order.js';

describe('sortRecords', () => {
  const keys = [
    { field: 'priority', type: 'number' as const, nulls: 'last' as const },
    { field: 'first_name', type: 'text' as const, nulls: 'last' as const },
  ];

  it('orders by priority, then first name ignoring case and accents; ties keep v1 order; missing values last', () => {
    const records = [
      { id: 1, priority: 10, first_name: 'Kenji' },
      { id: 2, priority: null, first_name: 'Aaron' },
      { id: 3, priority: 10, first_name: 'Élodie' },
      { id: 4, priority: 10, first_name: 'maria' },
      { id: 5, priority: '2', first_name: 'Zed' },
      { id: 6, priority: 10, first_name: 'Maria' },
      { id: 7, priority: 10, first_name: null },
      { id: 8, priority: 10, first_name: 'adam' },
    ];
    expect(sortRecords(records, keys).map((r) => r.id)).toEqual([5, 8, 3, 1, 4, 6, 7, 2]);
  });

  it('puts missing values first when the mapping says so', () => {
    const out = sortRecords([{ id: 1, p: 1 }, { id: 2, p: null }], [{ field: 'p', type: 'number', nulls: 'first' }]);
    expect(out.map((r) => r.id)).toEqual([2, 1]);
  });
});
