/**
 * The http project's files share one module graph per worker, and every one of them runs the
 * local gateway, which needs the process's invoke store to be the multi-invocation one
 * (tools/lambda/invoke-store.ts makes it on load); so do the infra files, one of which runs it.
 * Loaded before each file, so that it is made before any file's first SDK call could make the
 * single one.
 */
import '#tools/lambda/invoke-store';
