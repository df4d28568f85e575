//! README's instruction tables are rendered from `mappings/`; this fails when the copy in
//! README is stale (regenerate the block with `texlate ops`).

#[test]
fn readme_op_table_matches_mappings() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md is readable");
    let begin = "<!-- op-table:begin -->\n";
    let end = "<!-- op-table:end -->";
    let start = readme
        .find(begin)
        .expect("README has the op-table begin marker")
        + begin.len();
    let stop = readme
        .find(end)
        .expect("README has the op-table end marker");
    assert_eq!(
        &readme[start..stop],
        texlate::op_table_markdown(),
        "README's op table is stale: replace the block with the output of `texlate ops`"
    );
}

#[test]
fn readme_compatibility_matrix_matches_the_rule_table() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md is readable");
    let begin = "<!-- matrix:begin -->\n";
    let end = "<!-- matrix:end -->";
    let start = readme
        .find(begin)
        .expect("README has the matrix begin marker")
        + begin.len();
    let stop = readme.find(end).expect("README has the matrix end marker");
    assert_eq!(
        &readme[start..stop],
        texlate::mappings::rules::matrix_markdown(),
        "README's compatibility matrix is stale: replace the block with `texlate ops --matrix`"
    );
}
