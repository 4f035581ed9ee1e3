/**
 * Remix 1.19 build of the Rebalance site template.  Everything (including the @myst-theme packages,
 * which ship TypeScript sources) is bundled into build/index.js, so the server needs no node_modules
 * resolution at run time beyond @remix-run/serve itself.  Client assets go to public/build and are
 * addressed as /myst_assets_folder/, the prefix mystmd rewrites to <BASE_URL>/build/ in static builds.
 *
 * @type {import('@remix-run/dev').AppConfig}
 */
module.exports = {
  appDirectory: 'app',
  assetsBuildDirectory: 'public/build',
  serverBuildPath: 'build/index.js',
  publicPath: '/myst_assets_folder/',
  serverModuleFormat: 'cjs',
  serverPlatform: 'node',
  serverMinify: false,
  serverDependenciesToBundle: [/.*/],
  ignoredRouteFiles: ['**/.*'],
  future: {
    v2_routeConvention: true,
    v2_normalizeFormMethod: true,
    v2_headers: true,
    v2_meta: true,
    v2_errorBoundary: true,
  },
};
