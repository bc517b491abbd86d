// Entry point: mount the page. The server fills <meta name="turnwire-default-agent"> and <base>.
import { render } from 'preact';
import { App } from './app';

const meta = document.querySelector<HTMLMetaElement>('meta[name="turnwire-default-agent"]');
const root = document.getElementById('app');
if (root) render(<App defaultAgent={meta?.content || 'demo'} />, root);
