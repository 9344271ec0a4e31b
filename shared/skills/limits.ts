/**
 * The limits of a skill collection's files, whether sent as JSON or in a ZIP (PromptLayer's hard limit
 * is 5 MiB per file and at most 100 files per collection on its largest plan).
 */
export const SKILL_FILE_LIMITS = {
  /** Files in one collection (and file entries in one archive). */
  maxFiles: 100,
  /** Bytes of one file's UTF-8 text. */
  maxFileBytes: 5 * 1024 * 1024,
  /** Bytes of all files together. */
  maxTotalBytes: 20 * 1024 * 1024,
  /** Characters (code points) of one path. */
  maxPathLength: 512,
  /** Entries of any kind (directories, dropped junk) an archive may list before it is refused. */
  maxArchiveEntries: 1000,
  /** Largest uncompressed : compressed ratio of an archive entry, checked from `ratioFloorBytes` on. */
  maxCompressionRatio: 100,
  /** Below this size an entry's ratio is not checked: a short file of repeated text compresses further. */
  ratioFloorBytes: 64 * 1024,
} as const;
