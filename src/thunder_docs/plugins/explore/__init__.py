"""thunder-explore: the explorer's pages for the scripts the site names, written beside the site."""
