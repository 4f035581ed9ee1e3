// Dark/light preference posted by the theme button when serving live (static sites use localStorage).
export { setThemeAPI as action } from '@myst-theme/site';
