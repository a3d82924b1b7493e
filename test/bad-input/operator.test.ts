import { runCases } from './runner';
import { projectCases } from './tables/projects';

runCases('operator routes', projectCases());
