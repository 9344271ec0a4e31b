import { describe, expect, it } from 'vitest';
import { AppError } from '#shared/platform/errors.ts';
import {
  type ColumnShape,
  columnDependencies,
  columnReferences,
  MAX_REPORT_COLUMNS,
  placeColumn,
  validateColumns,
} from '#shared/reports/columns.ts';
import type { ReportColumn } from '#shared/reports/records.ts';

const DATASET = ['question', 'expected'];

const compare = (name: string, sources: [string, string]): ColumnShape => ({
  name,
  columnType: 'COMPARE',
  configuration: { sources, comparison_type: { type: 'STRING' } },
});

async function refusal(run: () => unknown): Promise<{ status: number; message: string }> {
  try {
    await run();
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('validateColumns', () => {
  it('accepts columns reading dataset columns and earlier columns', async () => {
    await expect(
      validateColumns(DATASET, [
        { name: 'answer', columnType: 'VARIABLE', configuration: { value: { type: 'string', value: 'a1' } } },
        compare('same', ['answer', 'expected']),
        {
          name: 'has',
          columnType: 'CONTAINS',
          configuration: { source: 'answer', value_source: 'question' },
        },
      ]),
    ).resolves.toBeUndefined();
  });

  it('refuses a name already used by a dataset column or another column', async () => {
    expect(
      await refusal(() => validateColumns(DATASET, [compare('question', ['question', 'expected'])])),
    ).toEqual({
      status: 400,
      message: 'Report already has a column with that name',
    });
    expect(
      (
        await refusal(() =>
          validateColumns(DATASET, [compare('x', ['question', 'expected']), compare('x', ['x', 'x'])]),
        )
      ).message,
    ).toBe('Report already has a column with that name');
  });

  it('refuses a type this service cannot run, and an unknown type', async () => {
    for (const type of ['HUMAN', 'MCP', 'WORKFLOW', 'XML_PATH', 'NOPE']) {
      expect(
        await refusal(() =>
          validateColumns(DATASET, [{ name: 'c', columnType: type as never, configuration: {} }]),
        ),
      ).toEqual({ status: 400, message: `column type ${type} is not supported` });
    }
  });

  it("refuses a configuration its executor's schema refuses, naming the column and the field", async () => {
    const { status, message } = await refusal(() =>
      validateColumns(DATASET, [
        { name: 'cmp', columnType: 'COMPARE', configuration: { sources: ['question'], comparison_type: {} } },
      ]),
    );
    expect(status).toBe(400);
    expect(message).toMatch(/^invalid configuration for column "cmp" \(COMPARE\): /);
  });

  it('refuses a reference to an unknown name and to a later column', async () => {
    expect(
      (await refusal(() => validateColumns(DATASET, [compare('c', ['question', 'nope'])]))).message,
    ).toBe('column "c" reads "nope", which is neither a dataset column nor an earlier column');
    expect(
      (
        await refusal(() =>
          validateColumns(DATASET, [compare('a', ['b', 'question']), compare('b', ['question', 'expected'])]),
        )
      ).message,
    ).toMatch(/column "a" reads "b", .* \(it comes after this column\)/);
  });

  it('checks prompt_template_variable_mappings and LLM_ASSERTION sources', async () => {
    const prompt: ColumnShape = {
      name: 'answer',
      columnType: 'PROMPT_TEMPLATE',
      configuration: { template: { name: 'qa' }, prompt_template_variable_mappings: { q: 'missing' } },
    };
    const assertion: ColumnShape = {
      name: 'ok',
      columnType: 'LLM_ASSERTION',
      configuration: { source: 'gone', prompt: 'Is it right?' },
    };
    expect((await refusal(() => validateColumns(DATASET, [prompt]))).message).toMatch(/reads "missing"/);
    expect((await refusal(() => validateColumns(DATASET, [assertion]))).message).toMatch(/reads "gone"/);
  });

  it(`refuses more than ${MAX_REPORT_COLUMNS} columns`, async () => {
    const many = Array.from({ length: MAX_REPORT_COLUMNS + 1 }, (_, i) =>
      compare(`c${i}`, ['question', 'expected']),
    );
    expect((await refusal(() => validateColumns(DATASET, many))).status).toBe(400);
    await expect(validateColumns(DATASET, many.slice(0, MAX_REPORT_COLUMNS))).resolves.toBeUndefined();
  });
});

describe('columnReferences', () => {
  it('reads source, sources, value_source, prompt_source and the mappings values, once each', () => {
    expect(
      columnReferences({
        source: 'a',
        sources: ['b', 'a'],
        value_source: 'c',
        prompt_source: 'd',
        prompt_template_variable_mappings: { x: 'e', y: 'b' },
        value: 'not a reference',
      }),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('columnDependencies', () => {
  const column = (id: number, position: number, name: string, columnType: string, configuration: object) =>
    ({ id, reportId: 1, name, columnType, configuration, position, isPartOfScore: false }) as ReportColumn;

  const columns = [
    column(1, 1, 'answer', 'PROMPT_TEMPLATE', { template: { name: 'qa' } }),
    column(2, 2, 'other', 'VARIABLE', { value: { type: 'string', value: 'x' } }),
    column(3, 3, 'same', 'COMPARE', { sources: ['answer', 'expected'], comparison_type: { type: 'STRING' } }),
    column(4, 4, 'judge', 'LLM_ASSERTION', { source: 'same', prompt: 'ok?' }),
    column(5, 5, 'code', 'CODE_EXECUTION', { code: 'return data["answer"].length + data.other.length' }),
    column(6, 6, 'mapped', 'PROMPT_TEMPLATE', {
      template: { name: 'qa' },
      prompt_template_variable_mappings: { a: 'other', b: 'question' },
    }),
    column(7, 7, 'later-ref', 'COMPARE', {
      sources: ['mapped', 'code'],
      comparison_type: { type: 'STRING' },
    }),
  ];

  it('names the earlier columns whose name a configuration string equals', () => {
    expect(columnDependencies(columns[2]!, columns)).toEqual(['answer']);
    expect(columnDependencies(columns[3]!, columns)).toEqual(['same']);
    expect(columnDependencies(columns[5]!, columns)).toEqual(['other']);
    expect(columnDependencies(columns[6]!, columns)).toEqual(['code', 'mapped']);
  });

  it('names the earlier columns a CODE_EXECUTION code mentions', () => {
    expect(columnDependencies(columns[4]!, columns)).toEqual(['answer', 'other']);
  });

  it('never names a later column, the column itself, or a dataset column', () => {
    expect(columnDependencies(columns[0]!, columns)).toEqual([]);
    const self = column(8, 1, 'loop', 'COMPARE', {
      sources: ['loop', 'same'],
      comparison_type: { type: 'STRING' },
    });
    expect(columnDependencies(self, [self, ...columns.slice(2)])).toEqual([]);
  });
});

describe('placeColumn', () => {
  it('inserts at a 1-based position, shifting later ones; absent or past the end appends', () => {
    expect(placeColumn(['a', 'b'], 'x', 1)).toEqual(['x', 'a', 'b']);
    expect(placeColumn(['a', 'b'], 'x', 2)).toEqual(['a', 'x', 'b']);
    expect(placeColumn(['a', 'b'], 'x', null)).toEqual(['a', 'b', 'x']);
    expect(placeColumn(['a', 'b'], 'x', 9)).toEqual(['a', 'b', 'x']);
  });

  it('refuses position 0 (the dataset columns come first) with a 403', async () => {
    expect(await refusal(() => placeColumn(['a'], 'x', 0))).toEqual({
      status: 403,
      message: 'You can not overwrite dataset columns',
    });
  });
});
