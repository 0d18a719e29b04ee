import express, { type Router } from 'express';
/** Where the page is served (public, on any host). */
export const DOCS_PATH = '/docs';
/** Where the Swagger UI files are served from. */
export const DOCS_ASSETS_PATH = `${DOCS_PATH}/assets`;

/**
 * The files of swagger-ui-dist the page loads. Only these are served: the package
 * also ships an index.html and initializer that fetch the Petstore from the internet.
 */
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png', 'swagger-ui.css.map', 'swagger-ui-bundle.js.map']);

/**
 * `GET /docs`: an interactive reference of the OpenAPI document, rendered by Swagger
 * UI from the installed swagger-ui-dist. Nothing is loaded from a CDN (on-premises
 * installs are often offline), and the online spec validator is switched off.
 */
export function docsPage(documentUrl: string): Router {
  // `swagger-ui-dist`'s main module evaluates its 1.5 MB browser bundle in Node;
  // this is its getAbsoluteFSPath without that.
  const assetsDir: string = require('swagger-ui-dist/absolute-path.js')();
  const assets = express.static(assetsDir, { index: false, redirect: false, maxAge: '1h' });
  const html = pageHtml(documentUrl);

  const router = express.Router();
  router.get(DOCS_PATH, (_req, res) => {
    res.type('html').send(html);
  });
  router.use(DOCS_ASSETS_PATH, (req, res, next) => (ASSETS.has(req.path.slice(1)) ? assets(req, res, next) : next()));
  return router;
}

function pageHtml(documentUrl: string): string {
  const config = {
    url: documentUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Swagger UI would send the document to validator.swagger.io for a badge.
    validatorUrl: null,
    layout: 'BaseLayout',
    tryItOutEnabled: false,
    displayOperationId: true,
  };
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Switchboard API reference</title>
    <link rel="stylesheet" type="text/css" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script>
      window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, { presets: [SwaggerUIBundle.presets.apis] }));
    </script>
  </body>
</html>
`;
}
