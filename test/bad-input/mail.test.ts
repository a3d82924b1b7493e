import { runCases } from './runner';
import { mailCases } from './tables/mail';

runCases('owner routes: mail templates, newsletters, subscribers, delivery', mailCases());
