// Stryker ignorer `error-message`: the message argument of the domain's `fail(code, message)` is not
// mutated. interface.md leaves error bodies and messages unspecified ("Error response body shape: not
// shown"), so no conformance scenario may assert a message's wording; the code and the status,
// which scenarios do assert, stay mutated. Listed in stryker.config.mjs; the report shows these
// mutants as Ignored with this reason.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

const REASON = 'error message text: interface.md does not specify error messages';

export const errorMessageIgnorer = {
  shouldIgnore(path) {
    const call = path.parentPath;
    const isFailMessage = call?.isCallExpression() && call.get('callee').isIdentifier({ name: 'fail' }) && path.listKey === 'arguments' && path.key === 1;
    return isFailMessage ? REASON : undefined;
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'error-message', errorMessageIgnorer)];
