/** Children shown per page under one parent; more appear behind a "+N more" node. */
export const CHILD_PAGE = 25;
