import { packageJestConfig } from '../../jest.preset.js';

export default packageJestConfig('simulator');
