"""What several test modules share (builders, corpora, fixtures' building blocks); no tests here.
Test modules import from this package, never from one another."""
