import { render } from 'preact';
import { App, boot } from './shell/App.tsx';
import './styles.css';

boot();
render(<App />, document.getElementById('app')!);
