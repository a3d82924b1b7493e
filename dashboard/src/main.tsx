// The owner dashboard's entry: bundled by scripts/build-dashboard.mjs into dashboard/public/app.js.
import { render } from 'preact';
import { App } from './components/App';

render(<App />, document.getElementById('app') as HTMLElement);
