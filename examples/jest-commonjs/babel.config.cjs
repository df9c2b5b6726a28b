// jest's own TypeScript setup ("Using TypeScript", via Babel); jest itself keeps its default configuration.
module.exports = {
  presets: [['@babel/preset-env', { targets: { node: 'current' } }], '@babel/preset-typescript'],
};
