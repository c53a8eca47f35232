import { z } from 'zod';
import { Article } from './article.js';
import { CalendarEvent } from './calendar-event.js';
import { ConsensusRow, InvestorDetail, TradeRow } from './smart-money.js';

export const DATASETS = ['articles', 'calendar', 'smart-money'] as const;
export const DatasetName = z.enum(DATASETS);
export type DatasetName = z.infer<typeof DatasetName>;

/** The resources of each dataset's bundle and the record schema of each. */
export const DATASET_RESOURCES = {
  articles: { articles: Article },
  calendar: { events: CalendarEvent },
  'smart-money': {
    investors: InvestorDetail,
    consensus: ConsensusRow,
    trades: TradeRow,
  },
} as const satisfies Record<DatasetName, Record<string, z.ZodType>>;

export function isDatasetName(value: string): value is DatasetName {
  return (DATASETS as readonly string[]).includes(value);
}
