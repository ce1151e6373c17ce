/** Characters a scan of a body's text reads between two yields (about 1 ms of a scan; a 3 MB body's scans took 15-40 ms each in one piece). */
export const CHARS_PER_YIELD = 64 * 1024;
