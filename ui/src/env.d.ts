/** Stylesheets imported for esbuild, which bundles them into the entry's .css file. */
declare module '*.css';
