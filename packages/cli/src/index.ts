export { buildProgram } from './main.ts';
export { loadConfig, BASE_URL_PRESETS, type CliConfig } from './config.ts';
export { EXIT, CliError } from './errors.ts';
