import { render } from 'preact';
import { App } from './shell/App.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
