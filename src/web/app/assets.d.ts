// Stylesheets are imported for esbuild, which bundles them into app.css.
declare module "*.css";
