import { defineWebExtConfig } from 'wxt';

// `npm run dev` opens Debian's browsers when there is a display; on a headless machine it only builds.
export default defineWebExtConfig({
  disabled: !process.env.DISPLAY,
  binaries: { chrome: '/usr/bin/chromium', firefox: '/usr/bin/firefox-esr' },
  chromiumArgs: ['--no-first-run', '--disable-background-networking'],
});
