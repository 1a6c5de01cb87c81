"""Reports for every job that writes one: the HTML page kit (:mod:`.html`), the plots' matplotlib
(:mod:`.plots`) and the example record the pages show (:mod:`.example`)."""
