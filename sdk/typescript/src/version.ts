/** Written into every run-start record so the importer knows which SDK wrote a run. */
export const SDK_NAME = 'traceback-ts';
export const SDK_VERSION = '0.1.0';
