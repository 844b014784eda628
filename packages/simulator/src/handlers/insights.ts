// Handlers for the "insights" operations (operation ids starting with "insights.").
import type { Handlers } from './types.ts';

export const insightsHandlers: Handlers = {};
