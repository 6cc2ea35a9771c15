/* h2d-check's pipeline lands here */
